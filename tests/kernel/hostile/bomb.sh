#!/bin/sh
# A hostile program: says hello as firstcard.js would, then at its first decision takes all
# the memory it can.
read -r hello
echo '{"kind":"capabilities","protocol":2,"name":"bomb","decisions":["discard","play"],"understands":[]}'
while read -r line; do
  case "$line" in
    *'"kind":"decide"'*) exec awk 'BEGIN { s = "x"; while (1) s = s s }' ;;
    *) echo '{"kind":"ok"}' ;;
  esac
done
