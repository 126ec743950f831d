// cxxprog: a C++ program (non-PIE) with namespaces, templates, methods,
// std::sort over a lambda and std::map, so that -O2 inlines library headers.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

extern "C" {
#include "work.h"
}

namespace geo {

template <typename T> struct Vec {
	T x, y, z;
	Vec operator+(const Vec &o) const { return {x + o.x, y + o.y, z + o.z}; }
	T dot(const Vec &o) const { return x * o.x + y * o.y + z * o.z; }
};

class Cloud {
public:
	explicit Cloud(unsigned seed) : seed_(seed) {}
	void fill(int n);
	double energy() const;
	void sortByNorm();

private:
	unsigned next() { return seed_ = seed_ * 1103515245u + 12345u; }
	unsigned seed_;
	std::vector<Vec<double>> pts_;
};

void Cloud::fill(int n)
{
	pts_.clear();
	for (int i = 0; i < n; i++)
		pts_.push_back({double(next() % 1000), double(next() % 1000), double(next() % 1000)});
}

double Cloud::energy() const
{
	double e = 0;
	for (size_t i = 0; i < pts_.size(); i++)
		for (size_t j = i + 1; j < pts_.size() && j < i + 64; j++)
			e += (pts_[i] + pts_[j]).dot(pts_[j]);
	return e;
}

void Cloud::sortByNorm()
{
	std::sort(pts_.begin(), pts_.end(),
		  [](const Vec<double> &a, const Vec<double> &b) { return a.dot(a) < b.dot(b); });
}

} // namespace geo

namespace {

__attribute__((noinline)) int countWords(const std::string &text, std::map<std::string, int> &m)
{
	std::string w;
	int n = 0;
	for (char c : text) {
		if (c == ' ') {
			if (!w.empty()) {
				++m[w];
				n++;
			}
			w.clear();
		} else {
			w += c;
		}
	}
	return n;
}

} // namespace

int main(int argc, char **argv)
{
	int iters = argc > 1 ? std::atoi(argv[1]) : 30;
	geo::Cloud c(7);
	std::map<std::string, int> words;
	std::string text;
	for (int i = 0; i < 200; i++)
		text += "alpha beta gamma delta " + std::to_string(i % 17) + " ";
	double e = 0;
	int n = 0;
	unsigned long long h = 0;
	for (int it = 0; it < iters; it++) {
		c.fill(20000);
		c.sortByNorm();
		e += c.energy();
		n += countWords(text, words);
		h ^= work_hash("symbolize me", 5000);
	}
	std::printf("%f %d %zu %llu\n", e, n, words.size(), h);
	return 0;
}
