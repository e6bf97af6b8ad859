def digit_sum(n):
    return n
