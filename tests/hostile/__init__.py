"""The hostile corpus: what a stranger's bot, or someone with write access to a results folder,
would try against a tournament (issue 38, the sandbox's second edition). One file a concern:
what a bot may see and read, what it may do to other bots and to cribsim's own streams, the
resources it may hold, the time it is given, and the results it could forge or poison. Every
case here failed on the code before the second edition (commit 8d0f2ad) and passes after; the
cases that need bubblewrap are skipped, with the reason, where it is missing."""
