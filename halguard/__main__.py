import sys

from halguard.tools.cli import main

sys.exit(main())
