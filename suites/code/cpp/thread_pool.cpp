#include <condition_variable>
#include <functional>
#include <future>
#include <iostream>
#include <mutex>
#include <queue>
#include <stdexcept>
#include <thread>
#include <type_traits>
#include <vector>

/// Fixed-size pool; tasks return std::future so exceptions reach the caller.
class ThreadPool {
public:
    explicit ThreadPool(std::size_t n = std::thread::hardware_concurrency()) {
        if (n == 0) n = 1;
        workers_.reserve(n);
        for (std::size_t i = 0; i < n; ++i) {
            workers_.emplace_back([this] { run(); });
        }
    }

    ThreadPool(const ThreadPool&) = delete;
    ThreadPool& operator=(const ThreadPool&) = delete;

    ~ThreadPool() {
        {
            std::lock_guard lock(mu_);
            stopping_ = true;
        }
        cv_.notify_all();
        for (auto& w : workers_) w.join();
    }

    template <class F, class... Args>
    auto submit(F&& f, Args&&... args) -> std::future<std::invoke_result_t<F, Args...>> {
        using R = std::invoke_result_t<F, Args...>;
        auto task = std::make_shared<std::packaged_task<R()>>(
            std::bind(std::forward<F>(f), std::forward<Args>(args)...));
        std::future<R> result = task->get_future();
        {
            std::lock_guard lock(mu_);
            if (stopping_) throw std::runtime_error("submit() on a stopped ThreadPool");
            tasks_.emplace([task] { (*task)(); });
        }
        cv_.notify_one();
        return result;
    }

private:
    void run() {
        for (;;) {
            std::function<void()> job;
            {
                std::unique_lock lock(mu_);
                cv_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
                if (stopping_ && tasks_.empty()) return;  // drain the queue before exiting
                job = std::move(tasks_.front());
                tasks_.pop();
            }
            job();
        }
    }

    std::vector<std::thread> workers_;
    std::queue<std::function<void()>> tasks_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool stopping_ = false;
};

int main() {
    ThreadPool pool(4);
    std::vector<std::future<unsigned long long>> parts;
    constexpr unsigned long long kN = 100'000'000ULL;
    constexpr unsigned long long kChunks = 8;
    for (unsigned long long c = 0; c < kChunks; ++c) {
        parts.push_back(pool.submit([c] {
            unsigned long long sum = 0;
            for (unsigned long long i = c * kN / kChunks; i < (c + 1) * kN / kChunks; ++i) sum += i;
            return sum;
        }));
    }
    unsigned long long total = 0;
    for (auto& p : parts) total += p.get();
    std::cout << "sum(0.." << kN << ") = " << total << " (expected " << kN * (kN - 1) / 2 << ")\n";
}
