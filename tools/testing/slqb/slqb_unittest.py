# SPDX-License-Identifier: GPL-2.0
"""What the harness's unit test modules share: where the repository is,
and a scratch folder for each module, made before its first test and
removed after its last one."""

import os
import shutil
import tempfile

# The harness's folder, and the repository's top from its place in it.
HARNESS = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HARNESS, '..', '..', '..'))


class Scratch:
	"""A test module's scratch folder: assign setup and teardown to the
	module's setUpModule and tearDownModule."""

	def __init__(self, prefix: str) -> None:
		self.prefix = prefix
		self.path = ''

	def setup(self) -> None:
		self.path = tempfile.mkdtemp(prefix=self.prefix)

	def teardown(self) -> None:
		shutil.rmtree(self.path, ignore_errors=True)

	def write(self, name: str, text: str) -> str:
		"""Writes a scratch file for one test; returns its path."""
		path = os.path.join(self.path, name)
		os.makedirs(os.path.dirname(path), exist_ok=True)
		with open(path, 'w', encoding='utf-8') as f:
			f.write(text)
		return path
