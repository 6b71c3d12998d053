"""The desktop application: a thin layer of Qt models and views over ``tklscore.core``."""
