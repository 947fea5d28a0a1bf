"""Built-in Fives and Threes strategies (``game: fives_threes``)."""
