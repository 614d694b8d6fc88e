# SPDX-License-Identifier: GPL-3.0-or-later
import sys

from qizhong.cli.main import main

sys.exit(main())
