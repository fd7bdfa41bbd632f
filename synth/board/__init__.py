"""Board scenes: a 2.5D top-down board drawn with OpenCV and warped to a camera view."""
