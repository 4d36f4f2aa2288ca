'''The commented profile ``referee profiles --template`` writes: Vivo's rules (the
guide's base game) with every key explained, to copy and change for a house's game.
A test checks that it loads and rules as ``vivo`` does.'''

TEMPLATE = """\
# A referee rule profile: the rules of one house's Casino Hold'em.
# Start from this file (Vivo's base game, as in the guide), change what your house
# does differently, then check it:   referee profiles house.yaml
# and audit with it:                 referee check logs/ --profile house.yaml
# (or name it in each session's header: profile: house.yaml, relative to the log).

# A short name: lowercase letters, digits, '.', '_' or '-'.
name: house
description: >-
  My house's Casino Hold'em: the guide's base game (Ante paytable also paid when the
  dealer does not qualify, Call pays 1:1 against a qualified dealer, no side bet).
# The document the profile follows (quoted in rulings).
source: "the house rules, edition 1"

# What the Ante pays, by the player's final hand: every category, as odds N:1 (net
# payout per unit staked: 3:1 pays 3 and returns the stake; 3:2 pays 1.5) or as a plain
# number (3 is 3:1).
ante_paytable:
  royal_flush: 100:1
  straight_flush: 20:1
  four_of_a_kind: 10:1
  full_house: 3:1
  flush: 2:1
  straight: 1:1
  three_of_a_kind: 1:1
  two_pair: 1:1
  pair: 1:1
  high_card: 1:1

# The Call stake is this many times the Ante.
call_multiple: 2
# What the Call pays when the player beats a qualified dealer (0 or "returned": the
# Call stake is only returned).
call_win_odds: 1:1
# When the dealer does not qualify, the Call is returned and the Ante pays:
#   paytable   - by the Ante paytable above
#   even_money - 1:1 whatever the hand
ante_when_not_qualified: paytable
# The dealer's weakest qualifying hand: a pair of fours or better. rank is the lowest
# rank of the pair (2-10, J, Q, K, A; unquoted is fine).
dealer_qualifier: {category: pair, rank: 4}

# An optional side bet on the player's two cards and the flop. Remove the '#' to offer one:
# bonus:
#   name: Bonus AA
#   paytable:
#     royal_flush: 25:1
#     straight_flush: 25:1
#     four_of_a_kind: 25:1
#     full_house: 25:1
#     flush: 25:1
#     straight: 7:1
#     three_of_a_kind: 7:1
#     two_pair: 7:1
#     pair: 7:1
#   minimum: {category: pair, rank: A}   # the weakest hand paid: a pair of aces
#   fold_forfeits: true                  # a fold loses the bonus stake

# Counted rounds a session agrees (void deals do not count); a different count is S005.
rounds_agreed: 20
# The Ante may not change within a session (S002).
fixed_stakes: true
# Every stake is a whole multiple of this (0.01: cents; 1: whole units) (S008).
stake_increment: 0.01
# Where a session records an opening balance, a call it cannot cover is a finding (S007).
call_requires_funds: false

# The words of your rules, quoted by referee explain beside each ruling (optional), by
# topic: fold, best_five, ranking, qualification, not_qualified, win, tie, lose,
# paytable, bonus, bonus_fold, void; each with where the words are and the text in
# English (en) and/or French (fr). Remove the '#' to quote your own:
# rules:
#   qualification:
#     cite: "House rules, section 5"
#     text: {en: "The dealer qualifies with a pair of fours or better."}
"""
