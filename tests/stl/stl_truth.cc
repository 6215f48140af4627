// SPDX-License-Identifier: Apache-2.0
// Ground truth for src/plan/litert/stl_order.c: the real libstdc++ unordered_set and std::sort.
// Input lines: "set v..." prints the iteration order after inserting v... in order;
// "sort k..." sorts positions 0..n-1 by key k[i] only (ties unordered), prints positions.
#include <algorithm>
#include <iostream>
#include <sstream>
#include <string>
#include <unordered_set>
#include <vector>

int main()
{
	std::string line;

	while (std::getline(std::cin, line)) {
		std::istringstream in(line);
		std::string cmd;
		std::vector<int> v;
		int x;

		in >> cmd;
		while (in >> x)
			v.push_back(x);
		if (cmd == "set") {
			std::unordered_set<int> s;
			for (int e : v)
				s.insert(e);
			for (int e : s)
				std::cout << e << ' ';
		} else {
			std::vector<int> pos(v.size());
			for (size_t i = 0; i < v.size(); i++)
				pos[i] = (int)i;
			std::sort(pos.begin(), pos.end(), [&](int a, int b) { return v[a] < v[b]; });
			for (int p : pos)
				std::cout << p << ' ';
		}
		std::cout << '\n';
	}
}
