from tklscore.cli import main

raise SystemExit(main())
