// matrix.hpp — a small dense row-major matrix for tests and tools.
// Not a BLAS replacement: the multiply is the textbook O(n³) loop with the
// i-k-j order so the inner loop walks memory contiguously.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <iomanip>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace linalg {

template <typename T>
class Matrix {
public:
    Matrix() = default;
    Matrix(std::size_t rows, std::size_t cols, T fill = T{})
        : rows_(rows), cols_(cols), data_(rows * cols, fill) {}

    Matrix(std::initializer_list<std::initializer_list<T>> init)
        : rows_(init.size()), cols_(init.size() ? init.begin()->size() : 0) {
        data_.reserve(rows_ * cols_);
        for (const auto& row : init) {
            if (row.size() != cols_) throw std::invalid_argument("ragged initializer list");
            data_.insert(data_.end(), row.begin(), row.end());
        }
    }

    static Matrix identity(std::size_t n) {
        Matrix m(n, n);
        for (std::size_t i = 0; i < n; ++i) m(i, i) = T{1};
        return m;
    }

    [[nodiscard]] std::size_t rows() const noexcept { return rows_; }
    [[nodiscard]] std::size_t cols() const noexcept { return cols_; }

    T& operator()(std::size_t r, std::size_t c) { return data_[r * cols_ + c]; }
    const T& operator()(std::size_t r, std::size_t c) const { return data_[r * cols_ + c]; }

    T& at(std::size_t r, std::size_t c) {
        if (r >= rows_ || c >= cols_) {
            throw std::out_of_range("Matrix::at(" + std::to_string(r) + ", " + std::to_string(c) + ")");
        }
        return (*this)(r, c);
    }

    Matrix transposed() const {
        Matrix t(cols_, rows_);
        for (std::size_t r = 0; r < rows_; ++r)
            for (std::size_t c = 0; c < cols_; ++c) t(c, r) = (*this)(r, c);
        return t;
    }

    Matrix& operator+=(const Matrix& o) {
        require_same_shape(o, "+=");
        std::transform(data_.begin(), data_.end(), o.data_.begin(), data_.begin(), std::plus<T>{});
        return *this;
    }

    friend Matrix operator+(Matrix a, const Matrix& b) { return a += b; }

    friend Matrix operator*(const Matrix& a, const Matrix& b) {
        if (a.cols_ != b.rows_) throw std::invalid_argument("shape mismatch in operator*");
        Matrix out(a.rows_, b.cols_);
        for (std::size_t i = 0; i < a.rows_; ++i)
            for (std::size_t k = 0; k < a.cols_; ++k) {
                const T aik = a(i, k);
                for (std::size_t j = 0; j < b.cols_; ++j) out(i, j) += aik * b(k, j);
            }
        return out;
    }

    friend bool operator==(const Matrix& a, const Matrix& b) {
        return a.rows_ == b.rows_ && a.cols_ == b.cols_ && a.data_ == b.data_;
    }

    friend std::ostream& operator<<(std::ostream& os, const Matrix& m) {
        for (std::size_t r = 0; r < m.rows_; ++r) {
            os << (r == 0 ? "⎡" : r + 1 == m.rows_ ? "⎣" : "⎢");
            for (std::size_t c = 0; c < m.cols_; ++c) os << std::setw(8) << m(r, c);
            os << (r == 0 ? " ⎤" : r + 1 == m.rows_ ? " ⎦" : " ⎥") << '\n';
        }
        return os;
    }

private:
    void require_same_shape(const Matrix& o, const char* op) const {
        if (rows_ != o.rows_ || cols_ != o.cols_) {
            throw std::invalid_argument(std::string("shape mismatch in ") + op);
        }
    }

    std::size_t rows_ = 0;
    std::size_t cols_ = 0;
    std::vector<T> data_;
};

}  // namespace linalg
