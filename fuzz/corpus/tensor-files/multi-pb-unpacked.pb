
Bab doc string: a field readers skip%=ก:%-๕>%ฬ[พ%ิýcฟ%ส่พ%Ü}ฟ