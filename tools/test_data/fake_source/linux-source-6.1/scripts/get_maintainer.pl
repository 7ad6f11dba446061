#!/usr/bin/env perl
# SPDX-License-Identifier: GPL-2.0
#
# A stand-in for scripts/get_maintainer.pl (export_test.py fixture): the
# maintainers of every patch it is given, with their roles, as the real
# one prints them with --rolestats; it too wants the top of the tree.
use strict;
use warnings;

if (!-e 'MAINTAINERS') {
	print STDERR "fake get_maintainer.pl: not run from the top of the tree\n";
	exit 1;
}
for my $patch (grep { !/^--/ } @ARGV) {
	-e $patch or die "cannot open $patch";
}
print "Ann Maintainer <ann\@example.org> (maintainer:ARM64 PORT (AARCH64 ARCHITECTURE))\n";
print "Rob Reviewer <rob\@example.org> (reviewer:ARM64 PORT (AARCH64 ARCHITECTURE))\n";
print "arm-list\@example.org (moderated list:ARM64 PORT (AARCH64 ARCHITECTURE))\n";
