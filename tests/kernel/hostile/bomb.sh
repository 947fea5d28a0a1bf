#!/bin/sh
# A hostile program: says hello as firstcard.js would, then at its first decision takes all
# the memory it can. (Every reply carries its request's id, as the protocol asks.)
id_of() { i=${1#*\"id\":}; echo "${i%%[!0-9]*}"; }
read -r hello
echo "{\"id\":$(id_of "$hello"),\"kind\":\"capabilities\",\"protocol\":3,\"name\":\"bomb\",\"decisions\":[\"discard\",\"play\"],\"understands\":[]}"
while read -r line; do
  case "$line" in
    *'"kind":"decide"'*) exec awk 'BEGIN { s = "x"; while (1) s = s s }' ;;
    *) echo "{\"id\":$(id_of "$line"),\"kind\":\"ok\"}" ;;
  esac
done
