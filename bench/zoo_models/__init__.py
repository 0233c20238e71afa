"""Small models written against their published architectures (random weights, tiny configs),
for ``bench.zoo`` where torchvision / transformers are not importable.

Each module builds models with the block structure of the library's own code (the same
views, permutes, reshapes, norms and attention forms), at sizes that compile in seconds.
"""
