def check(args, output, expected):
    scores, k = args
    return isinstance(output, list) and len(output) == len(expected) and all(x in scores for x in output)
