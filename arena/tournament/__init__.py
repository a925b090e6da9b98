"""Tournaments: configs, the schedule, executors that run matches, the results store, ratings and rankings,
the bot registry, accounts of games and the progress display.
"""
