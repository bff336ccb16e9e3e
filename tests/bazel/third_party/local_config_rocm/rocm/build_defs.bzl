"""ROCm is always configured in the example workspace."""

def if_rocm_is_configured(if_true, if_false = []):
    return if_true

def if_rocm(if_true, if_false = []):
    return if_true

def is_rocm_configured():
    return True
