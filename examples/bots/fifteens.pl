#!/usr/bin/perl
# fifteens: a cribbage bot in Perl, speaking cribsim's player protocol (docs/protocol.md) with Perl's
# own JSON::PP. Standard cribbage only, as its hello says: it keeps the cards that make the most
# fifteens and pairs, and plays 15 or 31, else a pair, else its highest card. (A card is never used
# as a string: JSON::PP would write it as one.)
use strict; use warnings; use JSON::PP;
$| = 1;                                             # every reply leaves at once

sub value { my $rank = int($_[0] / 4); $rank >= 9 ? 10 : $rank + 1 }  # card = rank * 4 + suit, ace 0

sub points {                                        # 2 for each fifteen and each pair among the cards
  my @c = @_; my $p = 0;
  for my $m (1 .. 2**@c - 1) { my $s = 0; $s += value($c[$_]) for grep { $m >> $_ & 1 } 0 .. $#c; $p += 2 if $s == 15 }
  for my $i (0 .. $#c) { $p += 2 * grep { int($c[$_] / 4) == int($c[$i] / 4) } $i + 1 .. $#c }
  return $p;
}

sub discard {                                       # lay away what leaves the most points in hand
  my ($obs) = @_; my @h = @{$obs->{hand}}; my ($best, $most) = (undef, -1);
  my @throws = $obs->{discards} == 1 ? map { [$_] } @h : map { my $i = $_; map { [$h[$i], $h[$_]] } $i + 1 .. $#h } 0 .. $#h;
  for my $t (@throws) {
    my $p = points(grep { my $c = $_; !grep { $_ == $c } @$t } @h);
    ($best, $most) = ($t, $p) if $p > $most;
  }
  return $best;
}

sub play {                                          # 15 or 31, else a pair, else the highest card
  my ($obs) = @_; my @legal = sort { value($b) <=> value($a) } @{$obs->{legal}}; my $last = $obs->{pile}[-1];
  for my $c (@legal) { my $n = $obs->{count} + value($c); return $c if $n == 15 || $n == 31 }
  for my $c (@legal) { return $c if defined $last && int($c / 4) == int($last / 4) }
  return $legal[0];
}

while (my $line = <STDIN>) {                        # one request a line, one reply a line
  my $msg = decode_json($line); my %reply = (kind => 'ok');   # match, seed, result: ok
  %reply = (kind => 'capabilities', protocol => 3, name => 'fifteens', decisions => ['discard', 'play'],
            understands => [], games => ['cribbage'], variants => []) if $msg->{kind} eq 'hello';
  %reply = (kind => 'reply', answer => $msg->{decision} eq 'discard' ? discard($msg->{obs}) : play($msg->{obs}))
    if $msg->{kind} eq 'decide';
  print encode_json({ id => $msg->{id}, %reply }), "\n";   # every reply carries its request's id
}
