import sys

from halguard.cli import main

sys.exit(main())
