"""Choosing a vocabulary: training candidate tokenizers, sweeping sizes, and the
compute-optimal size from scaling laws."""
