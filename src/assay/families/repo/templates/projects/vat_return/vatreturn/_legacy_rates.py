"""Rate table of the 2.x release, kept for journals that reach back into 2020.

From 1 July to 31 December 2020 the rates were lowered to 16 % and 5 %. Do not edit: the
auditors compare against this file.
"""

import datetime

LOWERED_FROM = datetime.date(2020, 7, 1)
LOWERED_UNTIL = datetime.date(2020, 12, 31)
LOWERED = {"S": 16, "R": 5, "Z": 0}
