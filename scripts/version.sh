# Sourced by scripts/windows.sh and scripts/installer.sh.
# version_numbers VERSION SEP: "v1.2.3-4-gabcdef-dirty" -> 1<SEP>2<SEP>3<SEP>4, the numeric
# version Windows shows (FILEVERSION, the installer's VIProductVersion). Anything that is
# not a version (a bare commit, "dev") becomes 0.0.0.0.
version_numbers() {
  local v="${1#v}" sep="$2" re='^([0-9]+)\.([0-9]+)(\.([0-9]+))?(-([0-9]+)-g[0-9a-f]+)?(-.*)?$'
  local parts=(0 0 0 0)
  if [[ $v =~ $re ]]; then
    parts=("${BASH_REMATCH[1]}" "${BASH_REMATCH[2]}" "${BASH_REMATCH[4]:-0}" "${BASH_REMATCH[6]:-0}")
  fi
  local out=() p
  for p in "${parts[@]}"; do
    p=$((10#$p)); ((p > 65535)) && p=65535 # each part is a 16-bit number
    out+=("$p")
  done
  (IFS=$sep; echo "${out[*]}")
}
