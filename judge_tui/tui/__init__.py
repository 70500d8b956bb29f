"""The Textual user interface: the rating screen and its parts."""
