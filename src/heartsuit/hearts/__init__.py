"""Hearts: the trick-taking game. Pure rules, no I/O."""
