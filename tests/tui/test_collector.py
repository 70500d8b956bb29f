"""What start-up made stays out of the garbage collector's full passes while the app runs (they walked all of it
and held a key up to 20-45 ms), and is handed back when the app ends."""

from __future__ import annotations

import gc


async def test_start_up_objects_are_frozen_after_the_first_paint_and_released_at_exit(make_app):
    gc.unfreeze()
    app = make_app("cis")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await pilot.pause()
        assert gc.get_freeze_count() > 0
        await pilot.press("3")
        await pilot.pause()
    assert gc.get_freeze_count() == 0
