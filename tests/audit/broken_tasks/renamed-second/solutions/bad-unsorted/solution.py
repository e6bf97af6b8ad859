
def typical_leftover(loaves):
    middle = len(loaves) // 2
    if not loaves:
        return None
    if len(loaves) % 2:
        return loaves[middle]
    return (loaves[middle - 1] + loaves[middle]) / 2
