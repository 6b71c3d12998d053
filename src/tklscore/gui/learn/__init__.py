"""The Learn view: the teaching tasks, the quiz and the definitions."""
