"""Learn mode: the PPDP teaching prototype's datasets, tasks and quiz, on the workbench's engine."""
