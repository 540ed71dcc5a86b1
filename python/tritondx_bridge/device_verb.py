"""The `device` verb: which GPU this process sees, without running anything on it.

Request: {}
Reply:   {"device": "NVIDIA H200" | "", "capability": [9, 0] | null}
"device" is the name the `run` verb records with every measurement ("" when no CUDA GPU is
visible), so a caller can tell whether new timings would be comparable with stored ones.
"""


def device_verb(request):
    import torch
    if not torch.cuda.is_available():
        return {"device": "", "capability": None}
    return {"device": torch.cuda.get_device_name(), "capability": list(torch.cuda.get_device_capability())}
