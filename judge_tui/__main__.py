from judge_tui.cli import main

raise SystemExit(main())
