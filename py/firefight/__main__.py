from firefight.cli import main

raise SystemExit(main())
