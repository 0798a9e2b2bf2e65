// rootcling's selection for TestTrack.h: the test-products source's user
// class, and the collections of test-products that ROOT has no dictionary for.
#ifdef __CLING__
#pragma link C++ class lanes::rootio::TestTrack+;
#pragma link C++ class std::vector<lanes::rootio::TestTrack>+;
#pragma link C++ class std::map<int, float>+;
#pragma link C++ class std::vector<std::vector<int> >+;
#endif
