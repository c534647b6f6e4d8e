// weft-ccd: CCD over benchmark query files (DESIGN.md "CCD query files"). Thin main: the
// logic is run_weft_ccd in src/ccd/ccd_benchmark.cpp.
#include <iostream>

#include "ccd/ccd_benchmark.hpp"

int main(int argc, char** argv) { return weft::run_weft_ccd(argc, argv, std::cout, std::cerr); }
