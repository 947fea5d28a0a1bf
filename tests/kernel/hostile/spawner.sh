#!/bin/sh
# A hostile program: leaves children behind (setsid) and forks without end, then plays as
# firstcard.js does.
for i in 1 2 3; do setsid sleep 987.655 & done
(i=0; while [ $i -lt 5000 ]; do sleep 1000 & i=$((i+1)); done) 2>/dev/null &
exec node firstcard.js
