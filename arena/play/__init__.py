"""Playing matches: the wire protocol's models, the referee and its transport, bot processes and their
confinement (sandbox, cgroups), clocks, and the runner that plays one game through a seats interface.
"""
