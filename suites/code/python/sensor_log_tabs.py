#!/usr/bin/env python
# Old sensor log reader, kept for the field units that still write format v1.
# NOTE: this file is indented with tabs on purpose (it predates our style guide).

import sys
import time

THRESHOLD_C = 42.5
FIELDS = ("timestamp", "sensor_id", "temp_c", "humidity")


def parse_line(line):
	parts = line.rstrip("\n").split(";")
	if len(parts) != len(FIELDS):
		return None
	try:
		return {
			"timestamp": int(parts[0]),
			"sensor_id": parts[1].strip(),
			"temp_c": float(parts[2]),
			"humidity": float(parts[3]),
		}
	except ValueError:
		return None


def main(path):
	bad = 0
	with open(path) as fh:
		for lineno, line in enumerate(fh, 1):
			rec = parse_line(line)
			if rec is None:
				bad += 1
				continue
			if rec["temp_c"] > THRESHOLD_C:
				when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(rec["timestamp"]))
				print("%s line %d: sensor %s at %.1f°C (%s UTC)" % (path, lineno, rec["sensor_id"], rec["temp_c"], when))
	if bad:
		sys.stderr.write("%d malformed lines skipped\n" % bad)


if __name__ == "__main__":
	main(sys.argv[1] if len(sys.argv) > 1 else "sensors.log")
