#!/bin/sh
# The "build" of this ref: the IoTDB release, with this ref's settings.
set -e
rm -rf dist
cp -r "$TSBENCH_IOTDB_RELEASE" dist
rm -f dist/.installed
printf '\n# settings of this ref\n' >> dist/conf/iotdb-system.properties
cat settings.properties >> dist/conf/iotdb-system.properties
