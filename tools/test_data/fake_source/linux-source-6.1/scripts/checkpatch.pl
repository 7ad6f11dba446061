#!/usr/bin/env perl
# SPDX-License-Identifier: GPL-2.0
#
# A stand-in for scripts/checkpatch.pl (pan_kunit_test.py fixture): a
# patch that holds the word FAKE-CHECKPATCH-ERROR fails, any other passes.
# Like the real one it wants the tree: its git checks (commit ids, the
# SPDX check) look for .git in the directory it runs in, so it must run
# from the top of the tree and not with --no-tree, and with /usr/bin first
# on PATH, where Debian's python3 (which spdxcheck.py must run) lives.
use strict;
use warnings;

if (grep { $_ eq '--no-tree' } @ARGV) {
	print "ERROR:FAKE_NO_TREE: run with --no-tree\n";
	exit 1;
}
if (index($ENV{PATH}, '/usr/bin:') != 0) {
	print "ERROR:FAKE_PYTHON: spdxcheck.py would not run Debian's python3\n";
	exit 1;
}
if (!-e 'scripts/checkpatch.pl') {
	print "ERROR:FAKE_NOT_TOP: not run from the top of the tree\n";
	exit 1;
}
my $patch = $ARGV[-1];
open(my $fh, '<', $patch) or die "cannot open $patch: $!";
while (my $line = <$fh>) {
	if ($line =~ /FAKE-CHECKPATCH-ERROR/) {
		print "$patch:$.: ERROR:FAKE: the fixture's error\n";
		exit 1;
	}
}
exit 0;
