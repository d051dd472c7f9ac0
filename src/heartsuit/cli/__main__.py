import sys

from heartsuit.cli import main

sys.exit(main())
