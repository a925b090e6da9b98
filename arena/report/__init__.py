"""The HTML report of a tournament or of a file of game records, with a game viewer (``arena report``)."""
