from race.cli import main

raise SystemExit(main())
