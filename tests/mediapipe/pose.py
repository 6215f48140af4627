#!/usr/bin/env python3
"""MediaPipe's Pose solution on one image, N frames (tests/integration/test_mediapipe.sh).

Usage: pose.py [--frames N] [--image FILE]

Static-image mode runs both of the solution's TFLite models on every frame: the pose
detector, then the pose landmark model (model_complexity 1: pose_landmark_full) on the
person it found. MediaPipe links its own TFLite statically into _framework_bindings.so
and reads each model file into memory. Before the frames it prints the two models' paths
in the wheel:
    model detector <path>
    model landmark <path>
and at the end `frames N found K` (K frames had a pose: the landmark model ran K times).
"""
import argparse
import os
import sys

import cv2
import mediapipe as mp

here = os.path.dirname(os.path.abspath(__file__))
ap = argparse.ArgumentParser(prog="pose.py")
ap.add_argument("--frames", type=int, default=20)
ap.add_argument("--image", default=os.path.join(here, "astronaut.jpg"))
a = ap.parse_args()

bgr = cv2.imread(a.image)
if bgr is None:
    sys.exit(f"pose.py: cannot read {a.image}")
rgb = cv2.cvtColor(bgr, cv2.COLOR_BGR2RGB)
mods = os.path.join(os.path.dirname(mp.__file__), "modules")
print("model detector", os.path.join(mods, "pose_detection", "pose_detection.tflite"))
print("model landmark", os.path.join(mods, "pose_landmark", "pose_landmark_full.tflite"),
      flush=True)
found = 0
with mp.solutions.pose.Pose(static_image_mode=True, model_complexity=1) as pose:
    for _ in range(a.frames):
        found += pose.process(rgb).pose_landmarks is not None
print("frames", a.frames, "found", found, flush=True)
