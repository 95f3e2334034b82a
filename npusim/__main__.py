import sys

from npusim.cli.main import main

sys.exit(main())
