"""The whose-words model: training data and training (app/text/whose.py reads it)."""
