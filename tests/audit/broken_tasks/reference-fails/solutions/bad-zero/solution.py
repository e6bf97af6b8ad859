def median(values):
    return 0
