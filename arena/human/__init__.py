"""A person at the table: ``arena play`` seats someone at the terminal against bot processes.

The person's seat is an SDK bot whose decisions come from the keyboard (player), shown the seat's own messages and
view (screen), reading what is typed against the legal actions (entry); the other seats are the referee's
(seats, session); the command is ``command``.
"""
