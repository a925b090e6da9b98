"""SPRT tests of one bot against another on duplicate deals (``arena sprt``): the maths, the run, the command."""
