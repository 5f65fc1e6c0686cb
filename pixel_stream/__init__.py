"""pixel_stream."""
