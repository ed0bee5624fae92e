"""What a learner sees: figures from data, live panels, self-checks, the trainer behind a button.
No attention maths here (that is ``attnlab.core``).

plotting   heatmaps and titles from data (``ax`` in, Axes out)
panels     live panels (a package: panel, renderer, PNG encoder)
selfcheck  multiple-choice, numeric and "write it yourself" checks
trainer    training behind a button, with a progress bar and a Stop
fonts      the shipped CJK font, behind matplotlib's default
"""
