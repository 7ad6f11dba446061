#!/usr/bin/env perl
# SPDX-License-Identifier: GPL-2.0
#
# A stand-in for scripts/checkpatch.pl (pan_kunit_test.py fixture): a
# patch that holds the word FAKE-CHECKPATCH-ERROR fails, any other passes.
use strict;
use warnings;

my $patch = $ARGV[-1];
open(my $fh, '<', $patch) or die "cannot open $patch: $!";
while (my $line = <$fh>) {
	if ($line =~ /FAKE-CHECKPATCH-ERROR/) {
		print "$patch:$.: ERROR:FAKE: the fixture's error\n";
		exit 1;
	}
}
exit 0;
