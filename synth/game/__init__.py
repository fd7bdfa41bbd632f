"""Whole games on video: a fixed camera over the board, the dice tray and the clock."""
