# Turns a text file into a C string constant (the default selection rules).
file(READ ${IN} content HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," content "${content}")
file(WRITE ${OUT} "/* generated from rules/default.json: do not edit */\n"
  "const char pacoll_default_rules_json[] = {${content} 0x00};\n")
