# SPDX-License-Identifier: GPL-2.0
"""The `peers` check group, run only on request (`slqb test --group
peers`): the boots of slqb_group_kernels.PEER_BOOTS, SLUB's runs of the
suites and workloads that the kernels group runs on SLQB, to compare with
when an SLQB check fails. They are kept out of the default run because
each needs a kernel build, or a boot, that CI's hour does not have room
for.
"""

from slqb_checks import Context, check_group
from slqb_group_kernels import PEER_BOOTS, run_table


@check_group('peers', on_request=True)
def peer_boots(ctx: Context) -> None:
	"""Builds each kernel of PEER_BOOTS and boots it in each of its shapes."""
	run_table(ctx, PEER_BOOTS)
