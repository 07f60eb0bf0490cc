
b doc string: a field readers skipJ=ก:-๕>ฬ[พิýcฟส่พÜ}ฟ