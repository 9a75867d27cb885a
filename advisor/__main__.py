"""`python -m advisor` runs the same CLI as the `fwadvisor` console script."""

from advisor.cli import main

raise SystemExit(main())
