#ifdef __CLING__
#pragma link C++ class corners::Empty+;
#pragma link C++ class corners::Hit+;
#pragma link C++ class corners::Track+;
#pragma link C++ class corners::Thrower+;
#pragma link C++ class std::vector<corners::Hit>+;
#pragma link C++ class std::map<std::int64_t, double>+;
#pragma link C++ class std::pair<const std::int64_t, double>+;
#pragma link C++ class std::unordered_map<std::int32_t, double>+;
#pragma link C++ class std::pair<const std::int32_t, double>+;
#pragma link C++ class std::set<std::int32_t>+;
#pragma link C++ class std::unordered_set<std::int64_t>+;
#endif
