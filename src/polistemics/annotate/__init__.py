"""Human validation of the judges (issue 17): the annotation sample, its labels and app."""
